"""How updates come in: long polling and the webhook server (with the Mini App's
routes and health), both through the durable inbox."""
