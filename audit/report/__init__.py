"""The reports of both kinds, the page model they share, the plots and the templates."""
