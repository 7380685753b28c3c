package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;

/**
 * The rig's own trivial client process, for its tests: connects a Curator client to {@code --connect} within {@code
 * --timeout-ms} (default 10,000), creates the persistent node {@code --create} (default {@code /rig-probe/<--id>}),
 * appends {@code <nanos> <id> ok probe <path> -} to {@code --history} if given, and exits 0; exits 3 if it could not
 * connect, 4 if the create failed. Other {@code --name value} arguments (those the rig passes a workload) are accepted
 * and ignored. Costs one create request (two with a missing parent), its session closed on exit.
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
        System.exit(run(options.get("--connect"), id, path, timeoutMs, options.get("--history")));
    }

    private static int run(String connect, String id, String path, int timeoutMs, String history) throws Exception {
        try (CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(4_000)
                .connectionTimeoutMs(timeoutMs)
                .retryPolicy(new RetryOneTime(100))
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
            } catch (Exception e) {
                System.out.println("probe " + id + ": create of " + path + " failed: " + e);
                return 4;
            }
            System.out.println("probe " + id + ": created " + path);
            if (history != null) {
                append(Path.of(history), System.nanoTime() + "\t" + id + "\tok\tprobe\t" + path + "\t-\n");
            }
            return 0;
        }
    }

    private static void append(Path file, String line) throws IOException {
        Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
