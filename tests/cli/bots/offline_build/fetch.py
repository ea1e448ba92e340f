"""What a download does first: reach the package registry (and fail without a network)."""

import socket

if __name__ == "__main__":
    socket.create_connection(("registry.npmjs.org", 443), timeout=10).close()
