rchar: 46069165030
wchar: 13663
syscr: 351698
syscw: 5
read_bytes: 839680
write_bytes: 8192
cancelled_write_bytes: 0
