"""The `perudo` command line."""

import argparse


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `perudo` console script."""
    parser = argparse.ArgumentParser(prog="perudo", description=__doc__)
    parser.parse_args(argv)
