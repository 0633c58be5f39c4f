/* placeholder */
typedef int pm_placeholder_pm_h5_;
