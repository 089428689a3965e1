rchar: 94567508927
wchar: 13667
syscr: 721711
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
