"""How the Mini App's answers go out over HTTP, whatever they say (nothing here knows a
game):

    assets   static/ as it is sent: the modules in one file, versioned names cached for good,
             gzip once at start-up
    headers  what every answer under /app/ carries: the content policy, no content sniffing
"""
