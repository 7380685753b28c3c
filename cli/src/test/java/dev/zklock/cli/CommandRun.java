package dev.zklock.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import picocli.CommandLine;

/**
 * The outcome of one run of the {@code zklock} command in the test's JVM: its exit status and what it printed; the
 * tests of every subcommand use it.
 *
 * <p>An immutable value: safe for use by any thread. A run makes the ZooKeeper requests of the command it runs.
 *
 * @param exitCode the exit status
 * @param out what it printed on its output
 * @param err what it printed on its error stream
 */
public record CommandRun(int exitCode, String out, String err) {
    private static final ObjectMapper READER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** Runs {@code zklock args...} on the calling thread and returns its outcome. */
    public static CommandRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = into(out, err).execute(args);
        return new CommandRun(exitCode, out.toString(), err.toString());
    }

    /** Returns the command line, printing into {@code out} and {@code err}, for runs that other threads watch. */
    public static CommandLine into(StringWriter out, StringWriter err) {
        CommandLine commandLine = Zklock.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }

    /** Returns a port nothing listens on: one the system just handed out and took back. */
    public static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Returns what the command printed on its output, read as one JSON value, as a script would read it. */
    public JsonNode json() {
        return json(out);
    }

    /**
     * Returns {@code text} read as one JSON value into Jackson's tree model; fails the test on anything that is not
     * exactly one JSON value.
     */
    public static JsonNode json(String text) {
        try {
            return READER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }
}
