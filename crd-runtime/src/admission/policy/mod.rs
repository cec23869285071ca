//! ValidatingAdmissionPolicy and MutatingAdmissionPolicy evaluation (being built).
