"""Play by email: a mailbox read over IMAP (or mail received over SMTP), replies sent over
SMTP, every seat proven by its address and its secret. Only this package imports the mail
libraries; games are played through the same :class:`~bot.service.GameService` as on
Discord and at the console."""
