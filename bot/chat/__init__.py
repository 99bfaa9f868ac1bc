"""Showing things in chats through the transport: the presenter (the one way a game
is shown), the draw order, boards, the queue's and tournaments' messages."""
