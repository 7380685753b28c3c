package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The machine's network namespaces as the rig sees them: whether it may make them, which exist, which run owns them
 * (an owner file {@code <dir>/<runId>.owner} holding the harness's pid), and their deletion with everything still
 * running inside. Stateless and thread-safe.
 */
final class Namespaces {
    /** The prefix of every run id, and so of every namespace and link the rig makes. */
    static final String PREFIX = "zkp";

    private Namespaces() {}

    /**
     * Checks that this process can make namespaces.
     *
     * @throws RigUnavailableException saying, in one line, why not
     */
    static void checkAvailable() {
        Commands.Result version = Commands.attempt(List.of("ip", "-V"));
        if (!version.ok()) {
            throw new RigUnavailableException(
                    "the partition rig needs iproute2's ip command, which cannot be run here ("
                            + version.err().strip() + ")");
        }
        // Make and delete a namespace: the one test that covers root, capabilities and a writable /run/netns alike.
        String probe = PREFIX + "-check-" + ProcessHandle.current().pid();
        Commands.Result made = Commands.attempt(List.of("ip", "netns", "add", probe));
        Commands.attempt(List.of("ip", "netns", "del", probe));
        if (!made.ok()) {
            String reason = made.err().strip().lines().findFirst().orElse("status " + made.status());
            throw new RigUnavailableException("the partition rig cannot make network namespaces here (it needs root): "
                    + "ip netns add: " + reason + " (running as " + System.getProperty("user.name") + ")");
        }
    }

    /** Returns the names of the machine's namespaces. */
    static List<String> list() {
        List<String> names = new ArrayList<>();
        for (String line : Commands.run(List.of("ip", "netns", "list")).split("\n")) {
            String name = line.strip().split("\\s+", 2)[0];
            if (!name.isEmpty()) {
                names.add(name);
            }
        }
        return names;
    }

    /** Returns the namespaces whose name starts with {@code runId + "-"}. */
    static List<String> ofRun(String runId) {
        return list().stream().filter(name -> name.startsWith(runId + "-")).toList();
    }

    /**
     * Deletes every namespace of the rig's prefix whose run has no live owner (its harness died before its teardown),
     * first killing the processes left inside; returns the names deleted.
     */
    static List<String> deleteStale(Path ownerDir) {
        List<String> deleted = new ArrayList<>();
        for (String name : list()) {
            int dash = name.indexOf('-');
            if (name.startsWith(PREFIX)
                    && dash > 0
                    && owner(ownerDir, name.substring(0, dash)).isEmpty()) {
                delete(name);
                deleted.add(name);
            }
        }
        return deleted;
    }

    /** Returns the live process that owns {@code runId}'s namespaces, empty if there is none. */
    static Optional<ProcessHandle> owner(Path ownerDir, String runId) {
        try {
            String pid = Files.readString(ownerFile(ownerDir, runId), StandardCharsets.UTF_8)
                    .strip();
            return ProcessHandle.of(Long.parseLong(pid)).filter(ProcessHandle::isAlive);
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Records this process as the owner of {@code runId}. */
    static void claim(Path ownerDir, String runId) throws IOException {
        Files.createDirectories(ownerDir);
        Files.writeString(
                ownerFile(ownerDir, runId),
                Long.toString(ProcessHandle.current().pid()));
    }

    /** Removes the owner file of {@code runId}, if any. */
    static void release(Path ownerDir, String runId) {
        try {
            Files.deleteIfExists(ownerFile(ownerDir, runId));
        } catch (IOException e) {
            // a stale owner file names a dead pid: the next run treats the namespaces as stale all the same
        }
    }

    /** Kills (SIGCONT, then SIGKILL) every process inside {@code name}, then deletes it; quiet if it is gone. */
    static void delete(String name) {
        Commands.Result pids = Commands.attempt(List.of("ip", "netns", "pids", name));
        for (String pid : pids.out().split("\\s+")) {
            if (!pid.isBlank()) {
                Commands.attempt(List.of("kill", "-CONT", pid));
                Commands.attempt(List.of("kill", "-KILL", pid));
            }
        }
        Commands.attempt(List.of("ip", "netns", "del", name));
    }

    private static Path ownerFile(Path ownerDir, String runId) {
        return ownerDir.resolve(runId + ".owner");
    }
}
