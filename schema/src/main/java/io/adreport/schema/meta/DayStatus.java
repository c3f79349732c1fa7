package io.adreport.schema.meta;

/** Live days have no row; a day that was ever closed stays closed for live increments. */
public enum DayStatus { LIVE, CLOSING, RECONCILED }
