package dev.zklock.recipes.leader;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.UnhandledErrorListener;
import org.apache.curator.framework.listen.ListenerManager;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a client's {@link UnhandledErrorListener}s of a failure that no caller waits for (a latch's entry refused, say
 * by an ACL), as Curator's latch does through the same listeners: with the {@link KeeperException} that caused it when
 * there is one, so a listener that looks for {@code NoAuthException} finds it. Stateless; no ZooKeeper call.
 */
final class UnhandledErrors {
    private static final Logger logger = LoggerFactory.getLogger(UnhandledErrors.class);

    private UnhandledErrors() {}

    static void report(CuratorFramework client, String reason, Throwable failure) {
        Object listenable;
        try {
            listenable = client.getUnhandledErrorListenable();
        } catch (UnsupportedOperationException e) {
            return; // a facade without listeners of its own: the failure is logged already
        }
        if (!(listenable instanceof ListenerManager<?, ?> manager)) {
            return; // a client that does not let us reach its listeners: the failure is logged already
        }
        Throwable told = keeperCause(failure);
        manager.forEach(listener -> {
            try {
                ((UnhandledErrorListener) listener).unhandledError(reason, told);
            } catch (RuntimeException e) {
                logger.error("{}: an unhandled-error listener threw", reason, e);
            }
        });
    }

    private static Throwable keeperCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof KeeperException) {
                return t;
            }
        }
        return failure;
    }
}
