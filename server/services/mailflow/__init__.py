"""Mail flow: the outbox (a mail to send, claimed and sent once), reminders before a deadline, reply addresses, and
what the mails of a batch read (``mail_rows``)."""
