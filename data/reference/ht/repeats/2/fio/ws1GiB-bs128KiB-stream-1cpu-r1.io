rchar: 46488464306
wchar: 13662
syscr: 354898
syscw: 5
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
