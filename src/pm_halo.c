/* placeholder */
typedef int pm_placeholder_pm_halo_;
