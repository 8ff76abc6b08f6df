"""Maintainers' tools: the argument lists of a release, the affected ranges of the incidents. The site never imports them."""
