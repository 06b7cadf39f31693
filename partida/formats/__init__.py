"""The site's date and time formats per language (``FORMAT_MODULE_PATH``): Django's own, with
the time zone's label after every time (``T``: "18:05 CET", "11:05 CST"), so a time is never
read in the wrong zone (each reader's zone: ``partida.middleware.LanguageMiddleware``)."""
