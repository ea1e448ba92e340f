"""Generated code of the bot contract (proto/arena/v1/arena.proto); never edited by hand."""
