package dev.zklock.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * The outcome of one run of the {@code zklock} command in the test's JVM: its exit status and what it printed.
 *
 * @param exitCode the exit status
 * @param out what it printed on its output
 * @param err what it printed on its error stream
 */
record CommandRun(int exitCode, String out, String err) {

    /** Runs {@code zklock args...} on the calling thread and returns its outcome. */
    static CommandRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = into(out, err).execute(args);
        return new CommandRun(exitCode, out.toString(), err.toString());
    }

    /** Returns the command line, printing into {@code out} and {@code err}, for runs that other threads watch. */
    static CommandLine into(StringWriter out, StringWriter err) {
        CommandLine commandLine = Zklock.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }
}
