rchar: 93611731898
wchar: 13667
syscr: 714420
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
