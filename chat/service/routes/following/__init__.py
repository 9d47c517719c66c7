"""The routes of following: the signed-in user's follows and the alerts they bring, and the
Atom feeds of papers (the newest, a category's, a researcher's, a search's, a user's follows)."""
