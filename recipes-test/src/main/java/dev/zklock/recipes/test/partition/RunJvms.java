package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The workload and observer JVMs of one {@link PartitionRun}: started in their namespaces with the run's command
 * lines, then awaited. Confined to the run's thread.
 */
final class RunJvms {
    private final List<NodeProcess> started;

    private RunJvms(List<NodeProcess> started) {
        this.started = started;
    }

    /**
     * Starts the workload in every client namespace and the observer in its own: every one with the seed, the run's
     * length and the one store directory; the clients with the rig's session timeout, each its own history file
     * {@code <id>.history}, the observer {@code observer.history}.
     */
    static RunJvms start(PartitionRig rig, PartitionRun.Builder run, Path histories, Path store) throws IOException {
        String connect = rig.connectString();
        String seconds = Long.toString(run.length().toSeconds());
        List<NodeProcess> started = new ArrayList<>();
        for (int i = 1; i <= run.clients(); i++) {
            String id = PartitionRig.clientNode(i);
            List<String> args = new ArrayList<>(List.of(
                    "--id",
                    id,
                    "--connect",
                    connect,
                    "--history",
                    histories.resolve(id + ".history").toString(),
                    "--seconds",
                    seconds,
                    "--session-timeout-ms",
                    Long.toString(rig.settings().sessionTimeout().toMillis()),
                    "--store",
                    store.toString()));
            args.addAll(run.seedArgs());
            started.add(rig.startClient(i, run.clientMain(), args));
        }
        List<String> args = new ArrayList<>(List.of(
                "--connect",
                connect,
                "--history",
                histories.resolve("observer.history").toString(),
                "--seconds",
                seconds,
                "--store",
                store.toString()));
        args.addAll(run.seedArgs());
        started.add(rig.startObserver(run.observerMain(), args));
        return new RunJvms(started);
    }

    /**
     * Waits up to {@code grace} in all for every JVM to end: the clients first, then the observer, told by the line
     * {@value PartitionObserver#READ_SETS} that no client writes any more. Returns each node's exit code, empty for one
     * still running then (the rig's teardown kills it).
     */
    Map<String, OptionalInt> await(Duration grace) throws InterruptedException {
        Map<String, OptionalInt> exits = new LinkedHashMap<>();
        long end = System.nanoTime() + grace.toNanos();
        NodeProcess observer = null;
        for (NodeProcess jvm : started) {
            if (jvm.node().equals(PartitionRig.OBSERVER)) {
                observer = jvm;
            } else {
                exits.put(jvm.node(), jvm.waitFor(Duration.ofNanos(Math.max(0, end - System.nanoTime()))));
            }
        }
        if (observer != null) {
            try {
                observer.send(PartitionObserver.READ_SETS);
            } catch (IOException gone) {
                // The observer has ended already: its exit code says how.
            }
            exits.put(observer.node(), observer.waitFor(Duration.ofNanos(Math.max(0, end - System.nanoTime()))));
        }
        return exits;
    }
}
