# Exercises: the empty state. A configuration with nothing in it still gets a
# state file on apply: serial 1, "outputs": {}, "resources": [], "check_results": null.
