// DashportHeadUnit: placeholder until its issue lands.
enum DashportHeadUnitModule {}
