rchar: 26856385450
wchar: 13665
syscr: 6556928
syscw: 5
read_bytes: 4096
write_bytes: 12288
cancelled_write_bytes: 0
