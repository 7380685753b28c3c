package dev.zklock.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code zklock} command. Without a subcommand it runs the demo. */
@Command(
        name = "zklock",
        mixinStandardHelpOptions = true,
        version = "zklock 0.1.0-SNAPSHOT",
        description = "ZooKeeper locks that run beside Apache Curator.",
        subcommands = {DemoCommand.class, TortureCommand.class, CommandLine.HelpCommand.class})
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
        return new CommandLine(new Zklock()).execute(args);
    }

    @Override
    public Integer call() {
        return new CommandLine(new DemoCommand()).execute();
    }
}
