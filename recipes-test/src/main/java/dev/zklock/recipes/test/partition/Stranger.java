package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.HistoryWriter;
import java.util.Comparator;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/**
 * Deletes lock nodes as a stranger would (an operator, a cleanup script), on the nemesis's command: one line {@code
 * delete <lock path>} deletes one child of that path, a waiter's node (the second in queue order) when there is one,
 * else the only node. Each node deleted is recorded as {@code stranger info stranger-delete} with the lock path as key
 * and the node's path as value, stamped after the delete returned (or failed in a way that leaves it unknown whether it
 * was done); a command that finds no node, or whose node went first, is recorded as {@code fail} with the reason. The
 * nemesis records the fault's own window.
 *
 * <p>Confined to the thread that reads the commands. Cost: one listing and one delete per command.
 */
final class Stranger {
    private static final String PROCESS = "stranger";
    private static final String F = "stranger-delete";

    private final CuratorFramework client;
    private final HistoryWriter history;

    Stranger(CuratorFramework client, HistoryWriter history) {
        this.client = client;
        this.history = history;
    }

    /**
     * Carries out one command line; a line that is not a command is an IllegalArgumentException naming it.
     *
     * @throws InterruptedException if interrupted while talking to ZooKeeper
     */
    void command(String line) throws InterruptedException {
        String[] words = line.trim().split("\\s+");
        if (words.length != 2 || !words[0].equals("delete") || !words[1].startsWith("/")) {
            throw new IllegalArgumentException("stranger command '" + line + "' is not 'delete <lock path>'");
        }
        delete(words[1]);
    }

    private void delete(String lockPath) throws InterruptedException {
        List<String> queue;
        try {
            queue = client.getChildren().forPath(lockPath).stream()
                    .sorted(Comparator.comparing(Stranger::sequence))
                    .toList();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            history.record(
                    PROCESS, "fail", F, lockPath, "not listed: " + e.getClass().getSimpleName());
            return;
        }
        if (queue.isEmpty()) {
            history.record(PROCESS, "fail", F, lockPath, "no lock node");
            return;
        }
        String node = ZKPaths.makePath(lockPath, queue.get(queue.size() > 1 ? 1 : 0));
        try {
            client.delete().forPath(node);
            history.record(PROCESS, "info", F, lockPath, node);
        } catch (KeeperException.NoNodeException e) {
            history.record(PROCESS, "fail", F, lockPath, "gone before the delete: " + node);
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
