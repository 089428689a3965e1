rchar: 137737645062
wchar: 18988
syscr: 1051074
syscw: 5
read_bytes: 8192
write_bytes: 36864
cancelled_write_bytes: 0
