"""What runs on a Server's behalf: the Runtime, the event loop, lifespan, handler calls, Context."""
