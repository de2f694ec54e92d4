package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CpuCapTest {

  @Test
  void refusesCapsTheKernelWouldRefuse() {
    assertThatThrownBy(() -> CpuCap.create(0, Duration.ofMillis(100))).hasMessageContaining("cpu cap = 0.0 cores");
    assertThatThrownBy(() -> CpuCap.create(0.25, Duration.ofSeconds(2))).hasMessageContaining("1 ms to 1000 ms");
    assertThatThrownBy(() -> CpuCap.create(0.001, Duration.ofMillis(100))).hasMessageContaining("below the kernel's 1 ms minimum");
  }

  @Test
  void withNeitherAWritableCgroupNorTaskset_theBenchCannotCap_andSaysWhy(@org.junit.jupiter.api.io.TempDir Path temp) {
    Path noController = temp.resolve("cpu");

    assertThat(CpuCap.unavailableReason(noController, temp.toString()))
        .hasValue("the nodes cannot be CPU-capped: no writable cgroup v1 cpu controller at " + noController
            + " (run as root for the kernel's cap) and no taskset on the PATH for the fallback (Debian: apt-get install util-linux)");
    assertThat(CpuCap.unavailableReason(noController, null)).isPresent();
  }

  @Test
  void tasksetOnThePath_isEnoughForTheFallback(@org.junit.jupiter.api.io.TempDir Path temp) throws Exception {
    Path bin = Files.createDirectories(temp.resolve("bin"));
    Path taskset = Files.writeString(bin.resolve("taskset"), "#!/bin/sh\n");
    assertThat(taskset.toFile().setExecutable(true)).isTrue();

    assertThat(CpuCap.unavailableReason(temp.resolve("cpu"), temp + java.io.File.pathSeparator + bin)).isEmpty();
  }

  @Test
  void aWritableCgroupController_isEnoughForTheKernelsCap(@org.junit.jupiter.api.io.TempDir Path temp) throws Exception {
    Path controller = Files.createDirectories(temp.resolve("cpu"));
    Files.writeString(controller.resolve("cpu.cfs_quota_us"), "-1\n");

    assertThat(CpuCap.unavailableReason(controller, "")).isEmpty();
  }

  @Test
  void capsEveryThreadOfARunningProcessAndRemovesItsGroupAfterwards() throws Exception {
    Process sleeper = new ProcessBuilder("sleep", "60").start();
    Path group;
    try (CpuCap cap = CpuCap.create(0.25, Duration.ofMillis(50))) {
      assumeThat(cap.enforced()).as("needs a writable cgroup v1 cpu controller (root): " + cap.describe()).isTrue();
      cap.apply("test-node", sleeper.pid());

      group = Path.of("/sys/fs/cgroup/cpu/tandem-bench-" + ProcessHandle.current().pid() + "/test-node");
      assertThat(Files.readString(group.resolve("cpu.cfs_quota_us")).trim()).isEqualTo("12500");
      assertThat(Files.readString(group.resolve("cpu.cfs_period_us")).trim()).isEqualTo("50000");
      assertThat(Files.readString(Path.of("/proc", Long.toString(sleeper.pid()), "cgroup")))
          .contains("tandem-bench-" + ProcessHandle.current().pid() + "/test-node");
      assertThat(cap.throttledPeriods("test-node")).isGreaterThanOrEqualTo(0);
      assertThat(cap.describe()).contains("quota 12500 µs per CFS period 50000 µs");
      sleeper.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    } finally {
      sleeper.destroyForcibly();
    }
    assertThat(group).doesNotExist();
  }

  @Test
  void theFallbackJudgesTheCeilingItCannotEnforceAndSaysWhy() throws Exception {
    try (CpuCap cap = CpuCap.fallback(0.25, Duration.ofMillis(100), "no cgroup v1 cpu controller at /nowhere")) {
      assertThat(cap.enforced()).isFalse();
      assertThat(cap.describe()).startsWith("FALLBACK (no cgroup v1 cpu controller at /nowhere)")
          .contains("taskset").contains("more than 0.25 core");
      assertThat(cap.overCeiling(0.30)).isTrue();
      assertThat(cap.overCeiling(0.25)).isFalse();
      assertThat(cap.throttledPeriods("any")).isEqualTo(-1);

      Process sleeper = new ProcessBuilder("sleep", "60").start();
      try {
        cap.apply("test-node", sleeper.pid());
        Process affinity = new ProcessBuilder("taskset", "-p", Long.toString(sleeper.pid())).start();
        String mask = new String(affinity.getInputStream().readAllBytes()).trim();
        int lastCpu = Runtime.getRuntime().availableProcessors() - 1;
        assertThat(mask).endsWith(": " + Long.toHexString(1L << lastCpu));
      } finally {
        sleeper.destroyForcibly();
      }
    }
  }

  @Test
  void theKernelsCapHasNoStepCriterion() {
    try (CpuCap cap = CpuCap.create(0.25, Duration.ofMillis(100))) {
      assumeThat(cap.enforced()).as("needs a writable cgroup v1 cpu controller (root): " + cap.describe()).isTrue();
      assertThat(cap.overCeiling(0.9)).isFalse();
    }
  }
}
