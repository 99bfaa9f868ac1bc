"""Playing strangers: the matchmaking queue, its pairing rules, their private chats."""
