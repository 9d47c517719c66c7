"""`python -m chat.cli`: the paperchat command."""

from chat.cli.main import main

main()
