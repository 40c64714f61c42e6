"""Wire-level types: errors, content, the questions to the client, the 2026-07-28 envelope."""
