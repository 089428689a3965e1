rchar: 26580027851
wchar: 5976
syscr: 202977
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
