"""Tools, resources, prompts and completion as component objects, and their hints."""
