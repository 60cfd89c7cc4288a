"""What a reader is shown, built once for pages and mails alike: a seat's decision, board, hand, history and
outcome; the replay; table talk; the organiser's pages. From the services' data and the text layer's words."""
