/* placeholder */
typedef int pm_placeholder_pm_cg_;
