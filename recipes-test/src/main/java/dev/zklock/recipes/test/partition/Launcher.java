package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts child JVMs inside node namespaces with {@code ip netns exec}, their output appended to {@code
 * <runDir>/<node>.log}, and remembers each so that the teardown can kill them all. Safe for use by multiple threads.
 */
final class Launcher {
    private final RigNetwork network;
    private final ChildJvm jvm;
    private final Path runDir;
    private final List<NodeProcess> started = new ArrayList<>(); // guarded by this

    Launcher(RigNetwork network, ChildJvm jvm, Path runDir) {
        this.network = network;
        this.jvm = jvm;
        this.runDir = runDir;
    }

    /**
     * Starts {@code mainClass} with {@code args} in {@code node}'s namespace; its standard input is a pipe when {@code
     * pipeInput} holds, nothing otherwise.
     */
    NodeProcess start(String node, List<String> jvmOptions, String mainClass, List<String> args, boolean pipeInput)
            throws IOException {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", network.namespace(node)));
        command.addAll(jvm.command(jvmOptions, mainClass, args));
        Path log = runDir.resolve(node + ".log");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        if (!pipeInput) {
            builder.redirectInput(
                    ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        }
        synchronized (this) {
            NodeProcess process = new NodeProcess(node, builder.start(), log);
            started.add(process);
            return process;
        }
    }

    /** Kills every process it started that still runs (paused ones are let go on first); safe to call again. */
    void killAll() throws InterruptedException {
        List<NodeProcess> all;
        synchronized (this) {
            all = List.copyOf(started);
        }
        for (NodeProcess process : all) {
            process.kill();
        }
    }
}
