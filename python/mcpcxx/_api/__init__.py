"""The public classes' modules: Server (server), Context (context) and ServerOptions (options)."""
