package dev.zklock.cli;

import dev.zklock.cli.bench.BenchCommand;
import dev.zklock.cli.demo.DemoCommand;
import dev.zklock.cli.inspect.InspectCommand;
import dev.zklock.cli.torture.TortureCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code zklock} command, the jar's main class. Without a subcommand it runs the demo.
 *
 * <p>Not thread-safe: picocli calls it once, on one thread. ZooKeeper cost: that of the subcommand it runs.
 */
@Command(
        name = "zklock",
        mixinStandardHelpOptions = true,
        version = "zklock 0.1.0-SNAPSHOT",
        description = "ZooKeeper locks that run beside Apache Curator.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:success", "1:failure (unreachable server, no lock at the path, ...)", "2:bad usage"},
        subcommands = {
            DemoCommand.class,
            InspectCommand.class,
            BenchCommand.class,
            TortureCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Zklock implements Callable<Integer> {
    /**
     * Runs the command and exits with its status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return commandLine().execute(args);
    }

    /**
     * Returns the command line with its failure handling: a {@link CommandFailure} prints its message to the error
     * stream, without a stack trace, and exits with status 1.
     */
    static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new Zklock());
        commandLine.setExecutionExceptionHandler((failure, command, parseResult) -> {
            if (failure instanceof CommandFailure) {
                command.getErr().println("zklock " + command.getCommandName() + ": " + failure.getMessage());
                command.getErr().flush();
                return 1;
            }
            throw failure;
        });
        return commandLine;
    }

    @Override
    public Integer call() {
        return new CommandLine(new DemoCommand()).execute();
    }
}
