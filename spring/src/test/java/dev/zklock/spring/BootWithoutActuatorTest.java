package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.util.ClassUtils;

/**
 * An application with zklock-spring and without Actuator starts and locks: a child JVM on this test's class path less
 * every {@code spring-boot-health} and {@code spring-boot-actuator} jar runs {@link App}, a plain
 * {@code @EnableAutoConfiguration} application, against this test's server, the way an application is built.
 *
 * <p>On such a class path the configuration before the split into health, metrics and observation auto-configurations
 * started too: Spring reads an auto-configuration's annotations with ASM and skips one whose type it cannot load, so
 * the health condition vanished with its jar. What failed ("Could not find class
 * [...OnEnabledHealthIndicatorCondition]") was a context whose class loader lacks the health module while the loader
 * of zklock's classes has it; {@code
 * ZkLockHealthContributorAutoConfigurationTest.health_withoutTheHealthModule_addsNoIndicatorAndTheRegistryWorks}
 * covers that.
 */
@Timeout(120)
final class BootWithoutActuatorTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void application_withoutHealthOnTheClassPath_startsAndLocks() throws Exception {
        List<String> classPath = classPathWithout("spring-boot-health", "spring-boot-actuator");
        assertThat(classPath)
                .noneMatch(entry -> Path.of(entry).getFileName().toString().startsWith("spring-boot-health"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(
                        java,
                        "-cp",
                        String.join(File.pathSeparator, classPath),
                        App.class.getName(),
                        zk.connectString(),
                        zk.path("locks"))
                .redirectErrorStream(true)
                .start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> readAll(child));
        try {
            assertThat(child.waitFor(90, TimeUnit.SECONDS))
                    .as("the application ended")
                    .isTrue();
        } finally {
            child.destroyForcibly();
        }
        String printed = output.get(10, TimeUnit.SECONDS);
        assertThat(child.exitValue()).as(printed).isZero();
        assertThat(printed)
                .contains("health support present: false")
                .contains("registry: ZkSpringLockRegistry")
                .contains("locked " + zk.path("locks") + "/key");
    }

    /**
     * The child: a Spring Boot application with zklock's auto-configuration and nothing of its own, that locks one key
     * and exits 0.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        public static void main(String[] args) throws Exception {
            System.out.println("health support present: "
                    + ClassUtils.isPresent("org.springframework.boot.health.contributor.HealthIndicator", null));
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                    .web(WebApplicationType.NONE)
                    .run("--zklock.connect-string=" + args[0], "--zklock.registry.root=" + args[1])) {
                LockRegistry<?> registry = context.getBean(LockRegistry.class);
                System.out.println("registry: " + registry.getClass().getSimpleName());
                ZkSpringLock lock = (ZkSpringLock) registry.obtain("key");
                if (!lock.tryLock(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("lock " + lock.path() + " not taken in 30 s");
                }
                try {
                    System.out.println("locked " + lock.path());
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** This JVM's class path, a manifest-only jar (Surefire's booter) opened, less the jars named with a prefix. */
    private static List<String> classPathWithout(String... prefixes) throws IOException {
        Set<String> entries = new LinkedHashSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                expand(Path.of(entry).toAbsolutePath(), entries);
            }
        }
        List<String> kept = new ArrayList<>();
        for (String entry : entries) {
            String name = Path.of(entry).getFileName().toString();
            boolean dropped = false;
            for (String prefix : prefixes) {
                dropped |= name.startsWith(prefix);
            }
            if (!dropped) {
                kept.add(entry);
            }
        }
        return kept;
    }

    /**
     * Adds {@code entry}, or for a jar whose manifest names a {@code Class-Path} the entries it names instead: the child
     * JVM would otherwise read the dropped jars through that manifest.
     */
    private static void expand(Path entry, Set<String> entries) throws IOException {
        List<Path> listed = entry.toString().endsWith(".jar") && Files.isRegularFile(entry) ? listed(entry) : List.of();
        if (listed.isEmpty()) {
            entries.add(entry.toString());
        }
        for (Path path : listed) {
            expand(path, entries);
        }
    }

    private static List<Path> listed(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            String value =
                    manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
            List<Path> paths = new ArrayList<>();
            if (value != null && !value.isBlank()) {
                for (String item : value.trim().split("\\s+")) {
                    // Surefire writes absolute file: URIs; others are relative to the jar's directory
                    paths.add(Path.of(jar.getParent().toUri().resolve(item)));
                }
            }
            return paths;
        }
    }

    private static String readAll(Process process) {
        try {
            return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(output not read: " + e + ")";
        }
    }
}
