package io.tandem.drill;

/** {@link CommittedResponsesDistributionIT} on the real Apache Tomcat 11 distribution. */
class CommittedResponsesTomcat11IT extends CommittedResponsesDistributionIT {
  @Override
  String major() {
    return "11";
  }
}
