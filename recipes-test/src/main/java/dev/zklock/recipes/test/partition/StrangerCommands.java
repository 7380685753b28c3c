package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.HistoryWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/**
 * Deletes lock nodes as a stranger would (an operator, a cleanup script), on the nemesis's command, one command per
 * line:
 *
 * <ul>
 *   <li>{@code stranger-delete} (the rig's {@code Stranger.OBSERVER_COMMAND}): a reaper's sweep of the workloads'
 *       paths ({@link PartitionWorkloads#nodeParents()}), visited in an order drawn from the seed: a waiter's node (the
 *       second in queue order) of every path that has one, one delete after the other; if none has a waiter, the only
 *       node of the first path that has a node. (Where a waiter's node goes while the lock is held is where a waiter
 *       that trusts the news ahead alone would hold beside the next session: every path each time.)
 *   <li>{@code delete <lock path>}: one node of that path, a waiter's when there is one, else the only one.
 * </ul>
 *
 * <p>Each delete is the stranger's window in the history, the one the checkers take for the fault ({@code
 * Timeline}): {@code stranger invoke stranger-delete} with the lock path as key and the node's path as value, stamped
 * before the delete is sent, then {@code ok} once it returned, {@code info} if it failed in a way that leaves it
 * unknown whether it was done, or {@code fail} if the node went first; a command that finds no node is recorded as a
 * lone {@code fail} with the reason. The nemesis records only that it asked.
 *
 * <p>Confined to the thread that reads the commands. Cost: one listing per path and one delete per path with a
 * waiter.
 */
final class StrangerCommands {
    private static final String PROCESS = "stranger";
    private static final String F = "stranger-delete";

    private final CuratorFramework client;
    private final HistoryWriter history;
    private final Random random;

    StrangerCommands(CuratorFramework client, HistoryWriter history, long seed) {
        this.client = client;
        this.history = history;
        this.random = new Random(seed);
    }

    /**
     * Carries out one command line; a line that is not a command is an IllegalArgumentException naming it.
     *
     * @throws InterruptedException if interrupted while talking to ZooKeeper
     */
    void command(String line) throws InterruptedException {
        String[] words = line.trim().split("\\s+");
        if (words.length == 1 && words[0].equals(F)) {
            deleteAnywhere();
        } else if (words.length == 2 && words[0].equals("delete") && words[1].startsWith("/")) {
            delete(words[1], queue(words[1]));
        } else {
            throw new IllegalArgumentException(
                    "stranger command '" + line + "' is neither '" + F + "' nor 'delete <lock path>'");
        }
    }

    private void deleteAnywhere() throws InterruptedException {
        List<String> paths = new ArrayList<>(PartitionWorkloads.nodeParents());
        Collections.shuffle(paths, random);
        String anyNode = null;
        boolean deleted = false;
        for (String path : paths) {
            Optional<List<String>> queue = queue(path);
            if (queue.isPresent() && queue.get().size() > 1) {
                delete(path, queue);
                deleted = true;
            } else if (anyNode == null && queue.isPresent() && !queue.get().isEmpty()) {
                anyNode = path;
            }
        }
        if (deleted) {
            return;
        }
        if (anyNode == null) {
            history.record(PROCESS, "fail", F, "-", "no lock node");
        } else {
            delete(anyNode, queue(anyNode));
        }
    }

    /** Returns the children of {@code lockPath} in queue order; empty (and a fail recorded) if they cannot be read. */
    private Optional<List<String>> queue(String lockPath) throws InterruptedException {
        try {
            return Optional.of(client.getChildren().forPath(lockPath).stream()
                    .sorted(Comparator.comparing(StrangerCommands::sequence))
                    .toList());
        } catch (KeeperException.NoNodeException e) {
            return Optional.of(List.of());
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            history.record(
                    PROCESS, "fail", F, lockPath, "not listed: " + e.getClass().getSimpleName());
            return Optional.empty();
        }
    }

    private void delete(String lockPath, Optional<List<String>> listed) throws InterruptedException {
        if (listed.isEmpty()) {
            return; // the listing failed, and said so
        }
        List<String> queue = listed.get();
        if (queue.isEmpty()) {
            history.record(PROCESS, "fail", F, lockPath, "no lock node");
            return;
        }
        String node = ZKPaths.makePath(lockPath, queue.get(queue.size() > 1 ? 1 : 0));
        history.record(PROCESS, "invoke", F, lockPath, node);
        try {
            client.delete().forPath(node);
            history.record(PROCESS, "ok", F, lockPath, node);
        } catch (KeeperException.NoNodeException e) {
            history.record(PROCESS, "fail", F, lockPath, node);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            history.record(PROCESS, "info", F, lockPath, node); // the delete may have been done: outcome unknown
        }
    }

    /** The queue order of a lock node: its 10-digit sequence suffix; a name without one sorts by itself. */
    private static String sequence(String child) {
        return child.length() >= 10
                        && child.substring(child.length() - 10).chars().allMatch(Character::isDigit)
                ? child.substring(child.length() - 10)
                : child;
    }
}
