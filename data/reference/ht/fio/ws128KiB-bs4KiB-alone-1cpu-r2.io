rchar: 20343282127
wchar: 5979
syscr: 4966795
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
