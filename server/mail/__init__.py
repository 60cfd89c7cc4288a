"""Mail: composing one mail per outbox kind, sending it through a transport (files or SMTP), and reading the
replies that come back (the SMTP/LMTP listener and the webhook's messages)."""
