"""The pages that list papers: search results and the search form, a category's papers, and
the latest for the signed-in user's follows, with the settings of what they follow."""
