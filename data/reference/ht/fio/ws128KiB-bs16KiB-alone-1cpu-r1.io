rchar: 47819189242
wchar: 13665
syscr: 2918863
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
