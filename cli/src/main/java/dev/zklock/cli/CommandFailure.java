package dev.zklock.cli;

/**
 * A failure the user can act on (an unreachable server, a path that holds no lock): the command prints its message,
 * without a stack trace, and exits with status 1 ({@link Zklock#commandLine()} does).
 *
 * <p>Like every exception, meant to be confined to the thread that throws and the one that catches it.
 */
public final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Makes a failure with {@code message}, what the command prints after its name.
     *
     * @param message what went wrong, naming the value at fault
     */
    public CommandFailure(String message) {
        super(message);
    }

    /**
     * Makes a failure with {@code message} and the exception behind it.
     *
     * @param message what went wrong, naming the value at fault
     * @param cause the exception behind it
     */
    public CommandFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
