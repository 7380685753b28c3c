package dev.zklock.recipes.test.partition;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryUntilElapsed;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * The rig's own trivial client process, for its tests: connects a Curator client to {@code --connect} within {@code
 * --timeout-ms} (default 10,000), creates the persistent node {@code --create} (default {@code /rig-probe/<--id>}; retried
 * within the same time if the connection drops, as a nemesis's kill of its server does, and done if a create whose
 * reply was lost made it),
 * appends {@code <nanos> <id> ok probe <path> -} to {@code --history} if given, stays connected for {@code --seconds}
 * (default 0) while appending each line of its standard input to the history as {@code <nanos> <id> info probe-input
 * - <line>}, and exits 0; exits 3 if it could not connect, 4 if the create failed. Other {@code --name value} arguments
 * (those the rig passes a workload) are accepted and ignored. Costs one create request (two with a missing parent), its
 * session closed on exit.
 */
public final class RigProbe {
    private RigProbe() {}

    /** Runs the probe with {@code --name value} arguments. */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        String id = options.getOrDefault("--id", "probe");
        String path = options.getOrDefault("--create", "/rig-probe/" + id);
        int timeoutMs = Integer.parseInt(options.getOrDefault("--timeout-ms", "10000"));
        Path history = options.containsKey("--history") ? Path.of(options.get("--history")) : null;
        long staySeconds = Long.parseLong(options.getOrDefault("--seconds", "0"));
        System.exit(run(options.get("--connect"), id, path, timeoutMs, history, staySeconds));
    }

    private static int run(String connect, String id, String path, int timeoutMs, Path history, long staySeconds)
            throws Exception {
        try (CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(4_000)
                .connectionTimeoutMs(timeoutMs)
                .retryPolicy(new RetryUntilElapsed(timeoutMs, 100))
                .build()) {
            client.start();
            if (!client.blockUntilConnected(timeoutMs, TimeUnit.MILLISECONDS)) {
                System.out.println("probe " + id + ": no connection to " + connect + " within " + timeoutMs + " ms");
                return 3;
            }
            try {
                client.create()
                        .creatingParentsIfNeeded()
                        .withMode(CreateMode.PERSISTENT)
                        .forPath(path);
            } catch (KeeperException.NodeExistsException madeByALostReply) {
                // a create retried after the connection dropped: the first one made it
            } catch (Exception e) {
                System.out.println("probe " + id + ": create of " + path + " failed: " + e);
                return 4;
            }
            System.out.println("probe " + id + ": created " + path);
            if (history != null) {
                append(history, System.nanoTime() + "\t" + id + "\tok\tprobe\t" + path + "\t-\n");
                recordInput(history, id);
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(staySeconds);
            for (long left = end - System.nanoTime(); left > 0; left = end - System.nanoTime()) {
                LockSupport.parkNanos(left); // a probe's whole job here is to be there for the run
            }
            return 0;
        }
    }

    private static void recordInput(Path history, String id) {
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    append(history, System.nanoTime() + "\t" + id + "\tinfo\tprobe-input\t-\t" + line + "\n");
                }
            } catch (IOException e) {
                System.out.println("probe " + id + ": standard input failed: " + e);
            }
        });
        reader.setDaemon(true);
        reader.start();
    }

    private static synchronized void append(Path file, String line) throws IOException {
        Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
