package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.RevocationWatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/**
 * Asks the holder of a lock node to let go, with Curator's revocation protocol: the node's data is set to
 * {@code __REVOKE__}, which a holder that made its lock revocable hears through the data watch it keeps on its node
 * (zklock's {@code makeRevocable} and Curator's alike). The zklock counterpart of Curator's {@code Revoker}. Revocation
 * is cooperative: the holder's listener decides whether and when it releases.
 *
 * <p>Thread-safe; stateless. Cost: one request (a data write) per node asked.
 *
 * @since 0.1.0
 */
public final class Revocation {
    private Revocation() {}

    /**
     * Asks the holder of {@code nodePath} to let go, as Curator's {@code Revoker.attemptRevoke(client, nodePath)}
     * does; a node that is already gone is not an error. One request.
     *
     * @param client the client to write with; its namespace applies
     * @param nodePath the full path of the lock node, relative to the client's namespace (as
     *     {@code getParticipantNodes()} and {@code getLockPath()} give it)
     * @throws InterruptedException if the thread is interrupted while writing
     * @throws ZkLockException if ZooKeeper refuses the write
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code nodePath} is not a valid ZooKeeper path
     */
    public static void request(CuratorFramework client, String nodePath) throws InterruptedException {
        Objects.requireNonNull(client, "client");
        String path = Checks.lockPath(Objects.requireNonNull(nodePath, "nodePath"));
        try {
            client.setData().forPath(path, RevocationWatch.REVOKE_MESSAGE);
        } catch (KeeperException.NoNodeException gone) {
            // released already: nothing to ask
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            KeeperException.Code code = e instanceof KeeperException ke ? ke.code() : null;
            throw new ZkLockException(
                    String.format("could not ask the holder of '%s' to let go: %s", path, e), path, true, code, e);
        }
    }

    /**
     * Asks every node of {@code path}'s queue that holds the lock (as each node's own driver decides) to let go: one
     * listing, and one write per holder.
     *
     * @return how many holders were asked
     */
    static int requestOfHolders(LockPath path) throws InterruptedException {
        List<String> children = new ArrayList<>();
        for (String node : path.participantNodes()) {
            children.add(ZKPaths.getNodeFromPath(node));
        }
        int asked = 0;
        for (String child : children) {
            LockNodeName name = LockNodeName.parse(child).orElse(null);
            if (name == null) {
                continue;
            }
            LockDriver driver = name.driver();
            List<String> sorted = driver.sort(children);
            if (driver.decide(LockQueueView.of(path.path(), sorted, child)).holdsLock()) {
                request(path.client(), ZKPaths.makePath(path.path(), child));
                asked++;
            }
        }
        return asked;
    }
}
