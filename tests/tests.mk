# tests/: cross-cutting checks that belong to no single part.
TESTS += flake
TEST_CMD_flake := tests/flake/check.sh
