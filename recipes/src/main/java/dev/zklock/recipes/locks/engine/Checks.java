package dev.zklock.recipes.locks.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.common.PathUtils;

/** Argument and state checks whose messages name the offending value; all run before any ZooKeeper call. */
public final class Checks {
    /**
     * The longest lock path taken. ZooKeeper refuses a request larger than the server's {@code jute.maxbuffer} (1 MB
     * by default) by dropping the connection, which would suspend every lock of the client on each try; lock paths are
     * far shorter than this in practice.
     */
    public static final int MAX_PATH_LENGTH = 16_384;

    private Checks() {}

    public static void requireArgument(boolean expression, String template, Object... args) {
        if (!expression) {
            throw new IllegalArgumentException(String.format(template, args));
        }
    }

    public static void requireState(boolean expression, String template, Object... args) {
        if (!expression) {
            throw new IllegalStateException(String.format(template, args));
        }
    }

    /** Returns {@code path} if it is an absolute ZooKeeper path that can hold lock nodes. */
    public static String lockPath(String path) {
        Objects.requireNonNull(path, "path");
        if (path.length() > MAX_PATH_LENGTH) {
            throw new IllegalArgumentException(String.format(
                    "invalid lock path of %d characters ('%s...'): longer than %d",
                    path.length(), path.substring(0, 40), MAX_PATH_LENGTH));
        }
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    String.format("invalid lock path '%s': %s", path, lowerFirst(e.getMessage())), e);
        }
        return path;
    }

    /** Throws unless {@code client} is started and not closed. */
    public static void requireStarted(CuratorFramework client, String path) {
        if (client.getState() != CuratorFrameworkState.STARTED) {
            throw notStarted(client, path, null);
        }
    }

    /** The error of a lock call on a client that is not started, or closed: the one {@link #requireStarted} throws. */
    public static IllegalStateException notStarted(CuratorFramework client, String path, Throwable cause) {
        return new IllegalStateException(
                String.format("client for lock '%s' must be started, but its state is %s", path, client.getState()),
                cause);
    }

    /** Returns a timeout in nanoseconds, saturated at {@link Long#MAX_VALUE} like Guava's {@code toNanosSaturated}. */
    public static long toNanos(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        try {
            return timeout.toNanos();
        } catch (ArithmeticException overflow) {
            return timeout.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    public static long toNanos(long time, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        return unit.toNanos(time);
    }

    private static String lowerFirst(String message) {
        if (message == null || message.isEmpty()) {
            return "not a valid ZooKeeper path";
        }
        return Character.toLowerCase(message.charAt(0)) + message.substring(1);
    }
}
