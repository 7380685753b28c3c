package dev.zklock.cli;

/**
 * A failure the user can act on (an unreachable server, a path that holds no lock): the command prints its message,
 * without a stack trace, and exits with status 1.
 */
final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CommandFailure(String message) {
        super(message);
    }

    CommandFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
