package dev.zklock.recipes.test.partition;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs short system commands ({@code ip}, {@code kill}, a four-letter word through {@code bash}) to the end and returns
 * what they printed. Stateless and thread-safe.
 */
final class Commands {
    private static final long TIMEOUT_SECONDS = 20;

    private Commands() {}

    /** What a finished command printed, and its exit status. */
    record Result(int status, String out, String err) {
        boolean ok() {
            return status == 0;
        }
    }

    /**
     * Runs {@code command} and returns its output.
     *
     * @throws IllegalStateException if it exits non-zero, naming the command and its stderr
     */
    static String run(List<String> command) {
        Result result = attempt(command);
        if (!result.ok()) {
            throw new IllegalStateException("command failed with status " + result.status() + ": "
                    + String.join(" ", command) + ": " + result.err().strip());
        }
        return result.out();
    }

    /** Runs {@code command} and returns its result whatever its status; status 127 if it cannot start at all. */
    static Result attempt(List<String> command) {
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .redirectInput(new File("/dev/null"))
                    .start();
        } catch (IOException e) {
            return new Result(127, "", "cannot run " + command.get(0) + ": " + e.getMessage());
        }
        try {
            // Both streams are small (route lists, a srvr reply): read the one, then the other.
            String out = read(process.getInputStream());
            String err = read(process.getErrorStream());
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result(124, out, "timed out after " + TIMEOUT_SECONDS + " s");
            }
            return new Result(process.exitValue(), out, err);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
    }

    private static String read(InputStream stream) {
        try (stream) {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
