package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.zklock.recipes.test.VirtualThreads;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two thousand virtual threads take one lock in a JVM that has never run zklock: no {@code jdk.VirtualThreadPinned}
 * event has a zklock frame, first acquires included (the classes a crowd loads, initializes and links at once are the
 * first use's, {@code FirstUse}), and no virtual thread loads a class from the class path: such a load reads a jar
 * under its monitor, and pins its carrier when it meets another thread there (the bench's first-use row at 100,000
 * virtual threads met it once, on the first virtual thread; too rare for a run of this test to meet, so the loads
 * themselves are what it counts). The crowd at the first acquires forms while the first of them loads the first
 * use's classes, among the first threads started; the rest of the ten thousand this class started before only queued
 * behind them, three requests each on a plain lock (84 s of the build's run). A JVM of the build has run zklock before
 * this class, so each case starts a JVM of its own ({@link FirstUseChild}), on the server of this class, with the build's class path. Virtual threads need
 * release 21; the {@code jdk25} execution runs this class on JDK 25, and on an older JVM it is skipped.
 */
@Timeout(180)
final class VirtualThreadFirstUseTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @BeforeAll
    static void virtualThreads() {
        assumeTrue(VirtualThreads.isAvailable(), "virtual threads need release 21; this JVM is " + Runtime.version());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"reentrant", "local-hand-off", "semaphore-mutex"})
    void acquire_twoThousandVirtualThreadsInAFreshJvm_neverPinInAZklockFrame(String kind) throws Exception {
        List<String> output = runChild(kind, zk.path("lock"), 2_000);

        assertThat(output).as("the child JVM's output").contains(FirstUseChild.HELD + 2_000);
        assertThat(output).as("the child JVM's output").contains(FirstUseChild.PINNED + 0);
        assertThat(output).as("the child JVM's output").contains(FirstUseChild.LOADED_ON_VIRTUAL + 0);
    }

    private static List<String> runChild(String kind, String path, int threads)
            throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                FirstUseChild.class.getName(),
                zk.connectString(),
                path,
                kind,
                Integer.toString(threads)));
        Process child = new ProcessBuilder(command)
                .directory(Path.of(".").toFile())
                .redirectErrorStream(true)
                .start();
        byte[] bytes = child.getInputStream().readAllBytes(); // ends when the child exits
        if (!child.waitFor(60, TimeUnit.SECONDS)) {
            child.destroyForcibly();
        }
        List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
        assertThat(child.exitValue())
                .as("the child JVM's exit, after %s", lines)
                .isZero();
        return lines;
    }
}
