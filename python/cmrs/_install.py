# The path of libcmrs.so recorded at install time (setup.py rewrites this
# file in the installed copy); None in the source tree.
LIBRARY = None
