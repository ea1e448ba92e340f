"""The referee: the only layer that speaks gRPC. It deals, asks, enforces, and survives bots."""

import os

# Set before grpc is first imported (every gRPC user in this package comes through here):
# - the classic polling transport: measured faster for many small round trips on one
#   stream than the event engine (see `arena bench referee`);
# - quiet logs: grpc's informational lines would otherwise land in every bot's log.
os.environ.setdefault("GRPC_EXPERIMENTS", "-event_engine_client,-event_engine_listener")
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
